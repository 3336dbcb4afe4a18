// mimalloc instead of glibc's malloc: a check allocates many small nodes from several rayon
// threads, and glibc grows its per-thread arenas with an mprotect call per page run (4,000
// calls, a third of the process's time, on wikimedia's hieradata). docs/benchmarks.md has the
// before/after figures. Transparent huge pages are no longer turned off (mimalloc's `no_thp`
// feature is gone): on this machine (`madvise` mode) a check's page faults went from 5,500 to
// 300 on wikimedia's hieradata, a fifth of its system time (session 7, docs/benchmarks.md).
// mimalloc's v2 line (the `v2` feature) rather than the crate's default v3: the same checks
// touch less fresh memory with it (15k files: 287 instead of 320 MiB, 139 instead of 154 huge
// pages) and run 5-10% faster (docs/benchmarks.md "Session 22").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // The process ends with `_exit` below: a check leaves what it built to the process's end.
    hieralint::gate::EXITS_AFTER_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
    let code = hieralint::cli::main();
    exit_now(code);
}

/// Ends the process once its output is written, without the C library's exit handlers:
/// mimalloc's (`mi_process_done`) returns every arena to the kernel page by page (`madvise`),
/// serial work at the very end of a run that the process's end does anyway (1% of a 1.5k-file
/// check's CPU, docs/benchmarks.md "Session 13").
fn exit_now(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // A profile-generating build (tools/pgo-build.sh) writes its profile from an exit handler.
    if std::env::var_os("HIERALINT_EXIT_HANDLERS").is_some() {
        std::process::exit(code)
    }
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; the standard streams were flushed above and nothing
    // else holds buffered output (files are written and closed before `cli::main` returns).
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}
