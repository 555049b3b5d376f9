struct Counter {
    n: u64,
}

#[toolwire::toolbox]
impl Counter {
    /// Doc.
    #[toolwire::tool]
    fn bump(&mut self) -> String {
        self.n += 1;
        self.n.to_string()
    }
}

fn main() {}
