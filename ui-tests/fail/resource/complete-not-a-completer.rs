/// A table's rows.
#[toolwire::resource(template = "db://tables/{table}", complete(table = 42))]
fn rows(table: String) -> String {
    table
}

fn main() {}
