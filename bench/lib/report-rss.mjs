// Preloaded with `node --import`: prints this process's peak RSS on stderr as it exits, so a benchmark can measure a
// whole command (the mce bin) without changing it.
process.once('exit', () => process.stderr.write(`\npeak-rss-bytes ${process.resourceUsage().maxRSS * 1024}\n`));
