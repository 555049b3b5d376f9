use std::rc::Rc;

use toolwire::state::State;

/// Doc.
#[toolwire::tool]
fn t(counter: State<Rc<u64>>) -> String {
    counter.to_string()
}

fn main() {}
