use toolwire::complete::CompletionRequest;

fn complete_table(_request: CompletionRequest) -> Vec<String> {
    vec!["users".into()]
}

/// A table's rows.
#[toolwire::resource(template = "db://tables/{table}", complete(tabel = complete_table))]
fn rows(table: String) -> String {
    table
}

fn main() {}
