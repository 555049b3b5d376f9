struct Service;

impl Service {
    /// Doc.
    #[toolwire::tool]
    fn t(&self, value: String) -> String {
        value
    }
}

fn main() {}
