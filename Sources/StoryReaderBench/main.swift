import StoryReader

// The program `storyreader-bench`: the benchmarks, kept out of the program a kiosk runs.
// `storyreader bench …` runs this with the same words. Benchmarks measure with their own
// settings: config.toml is not read.
await CommandLineProgram.run(BenchCommand.self) { try BenchCommand.parseAsRoot(Array(CommandLine.arguments.dropFirst())) }
