use toolwire::complete::CompletionRequest;

fn complete_language(_request: CompletionRequest) -> Vec<String> {
    vec!["rust".into()]
}

/// Review code.
#[toolwire::prompt(complete(lang = complete_language))]
fn review(code: String, language: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
