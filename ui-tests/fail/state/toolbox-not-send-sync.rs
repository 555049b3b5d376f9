use std::cell::Cell;

struct Counter {
    n: Cell<u64>,
}

#[toolwire::toolbox]
impl Counter {
    /// Doc.
    #[toolwire::tool]
    fn bump(&self) -> String {
        self.n.set(self.n.get() + 1);
        self.n.get().to_string()
    }
}

fn main() {}
