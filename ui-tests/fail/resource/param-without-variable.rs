/// Rows.
#[toolwire::resource(template = "db://tables/{table}")]
fn table(table: String, limit: u32) -> String {
    format!("{table}{limit}")
}

fn main() {}
