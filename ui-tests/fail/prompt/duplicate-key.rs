use toolwire::complete::CompletionRequest;

fn complete_language(_request: CompletionRequest) -> Vec<String> {
    vec!["rust".into()]
}

/// Review code.
#[toolwire::prompt(name = "review", name = "check", complete(language = complete_language, language = complete_language))]
fn review(code: String, language: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
