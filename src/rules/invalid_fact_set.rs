//! H905 `invalid-fact-set`: a `--facts` file hieralint cannot read as a fact set.

crate::declare_rule!(pub static META = {
    code: "H905",
    name: "invalid-fact-set",
    category: Correctness,
    summary: "a fact set file that is not JSON/YAML facts in a known shape",
    suppressible: false,
});
