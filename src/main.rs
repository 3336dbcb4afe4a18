// mimalloc instead of glibc's malloc: a check allocates many small nodes from several rayon
// threads, and glibc grows its per-thread arenas with an mprotect call per page run (4,000
// calls, a third of the process's time, on wikimedia's hieradata). docs/benchmarks.md has the
// before/after figures. Transparent huge pages are left to mimalloc (it asks for them where the
// system allows it, `madvise` mode here): the page faults of a check's fresh memory were a
// fifth of its system time, and 2 MiB pages cut them from 5,500 to 300 on wikimedia's
// hieradata (session 7, docs/benchmarks.md); the `no_thp` feature that turned them off is gone.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(hieralint::cli::main());
}
