//! Any string through Puppet's interpolation token scanner and `split_key`.
//!
//! Two independent implementations exist: `hieralint::interp` (hand-written, used by the engine
//! and the rules) and `hieralint::config::interp` (Puppet's own regexes run by Onigmo with Ruby
//! syntax, used for hiera.yaml). Besides "no panic" and "ranges on character boundaries", the
//! target checks that they agree token for token, on method syntax and on what `split_key`
//! accepts: Onigmo with Puppet's regexes is the oracle for the hand-written scanner.
#![no_main]

use hieralint::config::interp as cfg;
use hieralint::interp;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let s: &str = &s;
    let toks = interp::tokens(s);
    assert_eq!(interp::has_interpolation(s), s.contains("%{"));
    let mut last_end = 0;
    for t in &toks {
        assert!(t.range.start >= last_end && t.range.end <= s.len(), "{t:?}");
        last_end = t.range.end;
        assert!(s.is_char_boundary(t.range.start) && s.is_char_boundary(t.range.end));
        assert!(s[t.range.clone()].starts_with("%{") && s[t.range.clone()].ends_with('}'));
        assert_eq!(&s[t.expr_range.clone()], t.expr, "{t:?}");
        match &t.kind {
            interp::TokenKind::Method { arg, arg_range, .. }
            | interp::TokenKind::UnknownMethod { arg, arg_range, .. } => {
                assert_eq!(&s[arg_range.clone()], arg, "{t:?}")
            }
            _ => {}
        }
    }
    // Differential: the Onigmo-backed scanner finds the same tokens.
    let other = cfg::tokens(s);
    assert_eq!(toks.len(), other.len(), "token count differs for {s:?}");
    for (a, b) in toks.iter().zip(&other) {
        assert_eq!(a.range, b.range, "token range differs for {s:?}");
        assert_eq!(a.expr, b.expr, "expression differs for {s:?}");
        let problem = cfg::problem(b);
        match &a.kind {
            interp::TokenKind::Empty => assert_eq!(problem, None, "{s:?}"),
            interp::TokenKind::Method { method, .. } => assert_eq!(
                problem,
                Some(cfg::TokenProblem::Method(method.name().to_string())),
                "{s:?}"
            ),
            interp::TokenKind::UnknownMethod { name, .. } => assert_eq!(
                problem,
                Some(cfg::TokenProblem::Method(name.clone())),
                "{s:?}"
            ),
            interp::TokenKind::Variable => assert_eq!(
                problem.is_none(),
                interp::split_key(&a.expr).is_ok(),
                "split_key disagrees for {:?}",
                a.expr
            ),
        }
    }
    // split_key on the whole string, both ways.
    let split = interp::split_key(s);
    assert_eq!(
        split.is_ok(),
        cfg::split_key_ok(s),
        "split_key disagrees for {s:?}"
    );
    if let Ok(segs) = split {
        assert!(!segs.is_empty());
    }
    let _ = interp::ruby_to_i(s);
    let _ = interp::ruby_strip(s);
});
