//! H102 `interpolation-method-in-hiera-config`: `%{lookup(...)}` and other methods in hiera.yaml.

use crate::config::ConfigErrorKind;
use crate::project::{LoadedFile, Project};
use crate::rules::invalid_hiera_config::config_diagnostic;
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H102",
    name: "interpolation-method-in-hiera-config",
    category: Correctness,
    summary: "`%{lookup()}`, `%{alias()}`, `%{scope()}`, `%{literal()}` and other methods in hiera.yaml",
});

pub struct InterpolationMethodInHieraConfig;

impl Rule for InterpolationMethodInHieraConfig {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        for e in &file.hiera_config().1 {
            if e.kind == ConfigErrorKind::MethodInterpolation {
                sink.report(config_diagnostic(&META, file, e));
            }
        }
    }
}
