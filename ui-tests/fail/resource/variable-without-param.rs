/// Rows.
#[toolwire::resource(template = "db://tables/{table}/rows/{id}")]
fn row(table: String) -> String {
    table
}

fn main() {}
