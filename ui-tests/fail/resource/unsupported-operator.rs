/// Rows.
#[toolwire::resource(template = "db://tables{?limit}")]
fn table(limit: u32) -> String {
    limit.to_string()
}

fn main() {}
