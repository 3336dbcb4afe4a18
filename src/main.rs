// mimalloc instead of glibc's malloc: a check allocates many small nodes from several rayon
// threads, and glibc grows its per-thread arenas with an mprotect call per page run (4,000
// calls, a third of the process's time, on wikimedia's hieradata). docs/benchmarks.md has the
// before/after figures. Transparent huge pages are no longer turned off (mimalloc's `no_thp`
// feature is gone): on this machine (`madvise` mode) a check's page faults went from 5,500 to
// 300 on wikimedia's hieradata, a fifth of its system time (session 7, docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(hieralint::cli::main());
}
