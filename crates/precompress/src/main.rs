//! `execbench-precompress DIR`: brotli and gzip copies next to the built site's files (see lib.rs).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir] = args.as_slice() else {
        eprintln!("usage: execbench-precompress DIR   (writes FILE.br and FILE.gz next to each file of DIR)");
        return std::process::ExitCode::from(2);
    };
    let started = std::time::Instant::now();
    match execbench_precompress::precompress_dir(std::path::Path::new(dir)) {
        Ok(report) => {
            eprintln!(
                "precompress: {} files, {:.2} MB -> {:.2} MB brotli, {:.2} MB gzip ({} left as they are), {:.0} s",
                report.compressed,
                report.raw_bytes as f64 / 1e6,
                report.brotli_bytes as f64 / 1e6,
                report.gzip_bytes as f64 / 1e6,
                report.skipped,
                started.elapsed().as_secs_f64()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("precompress: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
