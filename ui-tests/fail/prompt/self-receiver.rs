struct Reviewer;

impl Reviewer {
    /// Review code.
    #[toolwire::prompt]
    fn review(&mut self, code: String) -> String {
        code
    }
}

fn main() {}
