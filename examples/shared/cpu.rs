//! The CPU time of the benchmark's own process, shared by the examples that report it.

/// CPU seconds this process used so far (user + system, every thread; Linux
/// `/proc/self/stat`, 0 elsewhere): the machine is shared, so wall time alone says little.
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15; `fields` starts at field 3.
    (ticks(11) + ticks(12)) / 100.0
}
