struct Db;

#[toolwire::toolbox]
impl Db {
    fn count(&self) -> usize {
        0
    }
}

fn main() {}
