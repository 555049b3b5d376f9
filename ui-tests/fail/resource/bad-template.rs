/// Rows.
#[toolwire::resource(template = "db://tables/{table")]
fn table(table: String) -> String {
    table
}

fn main() {}
