use toolwire::complete::CompletionRequest;

fn complete_app(_request: CompletionRequest) -> Vec<String> {
    vec!["app".into()]
}

/// Settings.
#[toolwire::resource(uri = "config://app", complete(app = complete_app))]
fn settings() -> String {
    String::new()
}

fn main() {}
