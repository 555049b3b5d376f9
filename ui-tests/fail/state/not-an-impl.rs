#[toolwire::toolbox]
struct Db;

fn main() {}
