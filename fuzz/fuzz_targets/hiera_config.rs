//! Any bytes as a hiera.yaml, read for each layer: `config::parse` must not panic, every error it
//! reports has a span inside the file, and the model's accessors (effective function, datadir,
//! options, the raw strings and their token spans) work on whatever it built.
#![no_main]

use std::sync::Arc;

use hieralint::config;
use hieralint::loader::yaml;
use hieralint::project::Layer;
use hieralint::span::SourceFile;
use hieralint_fuzz::invariants::check_span;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = Arc::new(SourceFile::from_bytes("hiera.yaml", data));
    let doc = yaml::load(&file);
    for layer in [
        Layer::Global,
        Layer::Environment,
        Layer::Module("m".to_string()),
    ] {
        let (model, errors) = config::parse(&file, &doc, &layer);
        for e in &errors {
            if let Err(m) = check_span(&file, e.span, &format!("{:?}", e.kind)) {
                panic!("{m}");
            }
            for (s, _) in &e.related {
                if let Err(m) = check_span(&file, *s, "related") {
                    panic!("{m}");
                }
            }
            assert!(!e.message.is_empty(), "{e:?}");
        }
        let Some(model) = model else { continue };
        for plan in [false, true] {
            let entries = model
                .hierarchy_for(plan)
                .iter()
                .chain(model.default_hierarchy_entries());
            for entry in entries {
                let _ = entry.effective_function(&model.defaults);
                let _ = entry.effective_datadir(&model.defaults);
                for raw in entry.raw_strings(&model.defaults) {
                    if let Err(m) = check_span(&file, raw.span, "raw string") {
                        panic!("{m}");
                    }
                    for (_, span) in config::token_spans(&file, &raw) {
                        if let Err(m) = check_span(&file, span, "token") {
                            panic!("{m}");
                        }
                    }
                }
            }
        }
        if let Some(v3) = &model.v3 {
            for b in &v3.backend_configs {
                let _ = b.effective_extension();
            }
        }
        let _ = model.is_used();
    }
});
