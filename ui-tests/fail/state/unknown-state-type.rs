use toolwire::state::State;

/// Doc.
#[toolwire::tool]
fn t(db: State<Database>) -> String {
    let _ = db;
    String::new()
}

fn main() {}
