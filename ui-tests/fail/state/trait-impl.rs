struct Db;

trait Count {
    fn count(&self) -> String;
}

#[toolwire::toolbox]
impl Count for Db {
    /// Doc.
    #[toolwire::tool]
    fn count(&self) -> String {
        String::new()
    }
}

fn main() {}
