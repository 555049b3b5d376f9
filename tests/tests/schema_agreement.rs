//! Validation and the advertised schema agree.
//!
//! For every golden signature, a corpus of argument objects (one valid object generated from
//! the schema, then every mutation of every node in it: each other JSON type, integer
//! bounds and their neighbours, integral floats, removed and unknown members) goes through
//! both the tool's own validation and the `jsonschema` crate on the advertised schema.
//!
//! - Both must accept, or both must reject.
//! - When both reject, they must blame the same thing: our error names the top-level
//!   argument the schema's first error points into, or (for unknown and missing arguments)
//!   the schema also objects at the root.

use serde_json::{Value, json};
use toolwire::{Context, Tool, ToolError};

#[path = "support/agreement.rs"]
mod agreement;
#[path = "support/signatures.rs"]
mod signatures;

use agreement::{judge, mutations, valid};

#[tokio::test]
async fn validation_and_schema_accept_and_reject_the_same_values() {
    let ctx = Context::new();
    let mut checked = 0usize;
    let mut rejected = 0usize;
    for tool in signatures::all() {
        let info = tool.info();
        let schema = info.input_schema().value().clone();
        let validator = jsonschema::validator_for(&schema).expect("advertised schema compiles");
        let mut corpus = Vec::new();
        for variant in 0..3 {
            let base = valid(&schema, &schema, variant);
            assert!(validator.is_valid(&base), "{}: generated instance {base} is invalid", info.name());
            mutations(&base, &mut Vec::new(), &mut corpus);
            corpus.push((vec![], base));
        }
        for (_, args) in corpus {
            let outcome = tool.call_json(args.clone(), &ctx).await;
            let ours = match &outcome {
                Err(ToolError::Arguments(e)) => Err(e.clone()),
                _ => Ok(()),
            };
            checked += 1;
            match judge(info.name(), &validator, &args, &ours) {
                Ok(both_rejected) => rejected += usize::from(both_rejected),
                Err(disagreement) => panic!("{disagreement}"),
            }
        }
    }
    // The corpus is broad enough to mean something.
    assert!(checked > 4000, "only {checked} cases");
    assert!(rejected > 2000, "only {rejected} rejections");
}

#[tokio::test]
async fn non_objects_are_refused_by_both() {
    let tool = signatures::documented {};
    let validator = jsonschema::validator_for(tool.info().input_schema().value()).unwrap();
    for args in [json!([]), json!("x"), json!(1), Value::Null, json!(true)] {
        assert!(!validator.is_valid(&args));
        let err = tool.call_json(args.clone(), &Context::new()).await.unwrap_err();
        assert!(
            err.to_string()
                .starts_with("tool 'documented' call rejected: arguments must be a JSON object, got "),
            "{err}"
        );
    }
}
