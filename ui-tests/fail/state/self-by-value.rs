struct Db;

#[toolwire::toolbox]
impl Db {
    /// Doc.
    #[toolwire::tool]
    fn close(self) -> String {
        String::new()
    }
}

fn main() {}
