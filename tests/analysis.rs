//! The semantic analysis layer: nodes from fact sets or implied by the data, grouped by the
//! files their hierarchies read, with shared per-key lookup outcomes.

use std::path::PathBuf;

use hieralint::engine::{LookupResult, PuppetVersion};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/example-control-repo")
}

#[test]
fn fact_sets_are_grouped_by_resolved_hierarchy() {
    let (mut project, _) = hieralint::scan::load_project(&[example()]);
    let (facts, errors) = hieralint::facts::load_fact_sets(&[example().join("facts")]);
    assert!(errors.is_empty(), "{errors:?}");
    project.fact_sets = facts;
    project.puppet = Some(PuppetVersion::V8);
    let analysis = project.analysis();
    assert_eq!(analysis.envs.len(), 1);
    let env = &analysis.envs[0];
    assert_eq!(env.nodes.len(), 3);
    // web01 has a node file, web02 does not, db01 is another role and OS: three hierarchies.
    assert_eq!(env.groups.len(), 3);
    let web01 = env
        .groups
        .iter()
        .find(|g| {
            g.nodes
                .iter()
                .any(|&n| env.nodes[n].name == "web01.example.com")
        })
        .unwrap();
    let outcomes = web01.outcomes(env);
    match &outcomes["profile::web::vhost_name"].result {
        LookupResult::Error(e) => assert!(
            e.message.contains("Recursive lookup detected"),
            "{}",
            e.message
        ),
        other => panic!("expected a recursion error, got {other:?}"),
    }
    match &outcomes["profile::base::motd"].result {
        LookupResult::Found(v) => {
            assert_eq!(v.to_ruby_s(), "Welcome to web01.example.com (Debian)")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn without_facts_nodes_are_implied_by_file_names() {
    let (project, _) = hieralint::scan::load_project(&[example()]);
    let env = &project.analysis().envs[0];
    let mut names: Vec<&str> = env.nodes.iter().map(|n| n.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "implied by data/nodes/web01.example.com.yaml",
            "implied by data/os/Debian.yaml",
            "implied by data/os/RedHat.yaml",
            "implied by data/roles/db.yaml",
            "implied by data/roles/web.yaml",
            "implied by data/sites/ams.yaml",
            "implied: no variables",
        ]
    );
    assert!(!env.real_facts);
}

/// The project at `dir`, analysed without facts on one thread: which data-implied nodes take
/// the module layers as a shared block depends on the order their hierarchies are resolved in
/// (a block is kept once a resolution found every layer cached).
fn analyzed_on_one_thread(dir: &std::path::Path) -> hieralint::project::Project {
    let (mut project, _) = hieralint::scan::load_project(&[dir.to_path_buf()]);
    project.puppet = Some(PuppetVersion::V8);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        project.analysis();
    });
    project
}

/// The files a group's hierarchy reads, walked level by level: existing file locations, each
/// at its first place.
fn plain_walk(group: &hieralint::analysis::Group) -> Vec<&std::path::Path> {
    let mut plain: Vec<&std::path::Path> = Vec::new();
    for level in &group.hierarchy.levels {
        for loc in level.locations.iter().flatten() {
            let p = std::path::Path::new(&loc.location);
            if loc.exists && !loc.is_uri && !plain.contains(&p) {
                plain.push(p);
            }
        }
    }
    plain
}

/// The read index lists each group's files as its hierarchy reads them (every level in order,
/// its existing file locations, each file at its first place), also where hierarchies share a
/// block of module levels, which the index lists once per block: checked against that plain
/// walk for every group of the example control repository and the recorded real repositories
/// (nodes implied by the data, so many groups hold the same block).
#[test]
fn the_read_index_is_the_plain_walk_of_each_hierarchy() {
    let mut envs = vec![example()];
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/real");
    let mut repos: Vec<PathBuf> = std::fs::read_dir(&real)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("env"))
        .filter(|p| p.is_dir())
        .collect();
    repos.sort();
    envs.extend(repos);
    let (mut groups, mut sharing) = (0, 0);
    for dir in envs {
        let project = analyzed_on_one_thread(&dir);
        for env in &project.analysis().envs {
            let index = env.read_index();
            for (g, group) in env.groups.iter().enumerate() {
                assert_eq!(
                    index.files(g).collect::<Vec<_>>(),
                    plain_walk(group),
                    "{} group {g}",
                    dir.display()
                );
                groups += 1;
                sharing += usize::from(group.hierarchy.levels.shares_block());
            }
        }
    }
    assert!(sharing >= 10, "{sharing} of {groups} groups share a block");
}

/// A file an environment level reads that is also a module's data file is listed once, at its
/// first place (the environment's level), though the module's levels are a block shared by
/// every group: the block's list is held once and each group skips what it listed already.
#[test]
fn a_module_file_the_environment_reads_is_listed_once() {
    let root = std::env::temp_dir().join(format!("hieralint-read-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let write = |rel: &str, body: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    write(
        "hiera.yaml",
        "version: 5\nhierarchy:\n  - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: module data too\n    glob: \"../modules/*/data/common.yaml\"\n  - name: common\n    path: common.yaml\n",
    );
    write("data/common.yaml", "c: 1\n");
    for n in ["a", "b", "c", "d", "e", "f"] {
        write(&format!("data/nodes/{n}.yaml"), &format!("{n}: 1\n"));
    }
    for m in ["m1", "m2"] {
        write(
            &format!("modules/{m}/hiera.yaml"),
            "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
        );
        write(
            &format!("modules/{m}/data/common.yaml"),
            &format!("{m}::k: 1\n"),
        );
    }
    let project = analyzed_on_one_thread(&root);
    let env = &project.analysis().envs[0];
    let index = env.read_index();
    // Filtered lists (block files tested once per block) are the plain lists filtered.
    for parity in 0..2u32 {
        let keep = |id: u32| id % 2 == parity;
        let lists = index.file_ids_where(|g| g != 1, keep);
        assert_eq!(lists.len(), env.groups.len());
        for (g, list) in lists.into_iter().enumerate() {
            let want = (g != 1).then(|| index.file_ids(g).filter(|&id| keep(id)).collect());
            assert_eq!(list, want, "group {g}");
        }
    }
    let mut sharing = 0;
    for (g, group) in env.groups.iter().enumerate() {
        let files: Vec<&std::path::Path> = index.files(g).collect();
        assert_eq!(files, plain_walk(group), "group {g}");
        let module_files = files
            .iter()
            .filter(|p| p.to_string_lossy().contains("/modules/"))
            .count();
        assert_eq!(module_files, 2, "group {g}: {files:?}");
        sharing += usize::from(group.hierarchy.levels.shares_block());
        for p in &files {
            assert!(index.reads(g, p));
        }
    }
    // Every group, the reference (the first, resolved before the others) too: a hierarchy
    // holding the module levels as its own made every group's deltas compare each level.
    assert_eq!(sharing, env.groups.len(), "groups sharing a block");
    std::fs::remove_dir_all(&root).ok();
}

/// Two files that bind the same variables alike (`nodes/a.yaml` and `secrets/nodes/a.yaml`)
/// imply two nodes of one scope: the analysis resolves that scope's hierarchy once, and both
/// nodes are in one group whose hierarchy is what resolving either node afresh gives.
#[test]
fn files_binding_alike_imply_nodes_of_one_scope() {
    let root = std::env::temp_dir().join(format!("hieralint-one-scope-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let write = |rel: &str, body: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    write(
        "hiera.yaml",
        "version: 5\nhierarchy:\n  - name: secrets\n    path: \"secrets/nodes/%{trusted.certname}.yaml\"\n  - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: roles\n    path: \"roles/%{facts.role}.yaml\"\n  - name: common\n    path: common.yaml\n",
    );
    write("data/common.yaml", "c: 1\n");
    for n in ["a", "b"] {
        write(&format!("data/nodes/{n}.yaml"), &format!("{n}: 1\n"));
    }
    write("data/secrets/nodes/a.yaml", "s: 1\n");
    write("data/roles/web.yaml", "r: 1\n");
    let project = analyzed_on_one_thread(&root);
    let env = &project.analysis().envs[0];
    let node = |name: &str| {
        env.nodes
            .iter()
            .position(|n| n.name == format!("implied by data/{name}"))
            .unwrap_or_else(|| panic!("no node implied by {name}"))
    };
    let (secret_a, a, b, web) = (
        node("secrets/nodes/a.yaml"),
        node("nodes/a.yaml"),
        node("nodes/b.yaml"),
        node("roles/web.yaml"),
    );
    let scope = |i: usize| &env.nodes[i].scope;
    assert!(std::sync::Arc::ptr_eq(scope(secret_a), scope(a)));
    assert!(!std::sync::Arc::ptr_eq(scope(a), scope(b)));
    assert!(!std::sync::Arc::ptr_eq(scope(a), scope(web)));
    let group_of = |i: usize| {
        env.groups
            .iter()
            .position(|g| g.nodes.contains(&i))
            .unwrap_or_else(|| panic!("node {i} is in no group"))
    };
    assert_eq!(group_of(secret_a), group_of(a));
    assert_ne!(group_of(a), group_of(b));
    assert_eq!(
        env.groups.iter().map(|g| g.nodes.len()).sum::<usize>(),
        env.nodes.len()
    );
    // The shared group's hierarchy is node a's, resolved afresh: both a's files are read.
    let fresh = env.engine.session(scope(a).clone()).fresh_hierarchy();
    let group = &env.groups[group_of(a)];
    assert_eq!(group.hierarchy.fingerprint(), fresh.fingerprint());
    let files = plain_walk(group);
    for f in ["secrets/nodes/a.yaml", "nodes/a.yaml", "common.yaml"] {
        assert!(files.iter().any(|p| p.ends_with(f)), "{f} not in {files:?}");
    }
    std::fs::remove_dir_all(&root).ok();
}

/// A level that reads the certname has one resolution per node; the engine keeps a bounded
/// number of them and resolves the others again when asked. Past that bound, every node's
/// hierarchy still reads its own node file, and resolving it again gives the same hierarchy.
#[test]
fn per_node_levels_past_the_kept_resolutions_resolve_alike() {
    let root = std::env::temp_dir().join(format!("hieralint-per-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let write = |rel: &str, body: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    write(
        "hiera.yaml",
        "version: 5\nhierarchy:\n  - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: common\n    path: common.yaml\n",
    );
    write("data/common.yaml", "c: 1\n");
    let n = 150;
    for i in 0..n {
        write(&format!("data/nodes/n{i}.yaml"), &format!("k{i}: 1\n"));
    }
    let project = analyzed_on_one_thread(&root);
    let env = &project.analysis().envs[0];
    assert_eq!(env.nodes.len(), n + 1);
    for i in 0..n {
        let name = format!("implied by data/nodes/n{i}.yaml");
        let node = env.nodes.iter().position(|x| x.name == name).unwrap();
        let group = env.groups.iter().find(|g| g.nodes.contains(&node)).unwrap();
        let files = plain_walk(group);
        assert!(
            files
                .iter()
                .any(|p| p.ends_with(format!("nodes/n{i}.yaml"))),
            "{name}: {files:?}"
        );
        // Resolved again (from the cache for the first nodes, afresh for the others).
        let again = env
            .engine
            .session(env.nodes[node].scope.clone())
            .fresh_hierarchy();
        assert_eq!(again.fingerprint(), group.hierarchy.fingerprint(), "{name}");
    }
    std::fs::remove_dir_all(&root).ok();
}
