import StoryReader

// The program `storyreader`: every command lives in the StoryReader library, which the
// benchmarks' program (storyreader-bench) shares.
await CommandLineProgram.storyreader()
