struct Db<T> {
    rows: Vec<T>,
}

#[toolwire::toolbox]
impl<T: Send + Sync + 'static> Db<T> {
    /// Doc.
    #[toolwire::tool]
    fn count(&self) -> String {
        self.rows.len().to_string()
    }
}

fn main() {}
