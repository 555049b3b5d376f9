struct Db;

#[toolwire::toolbox(read_only)]
impl Db {
    /// Doc.
    #[toolwire::tool]
    fn count(&self) -> String {
        String::new()
    }
}

fn main() {}
