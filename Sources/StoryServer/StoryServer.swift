/// Whether this build contains the sync server (built with `swift build --traits Server`).
#if Server
    public let serverIsBuiltIn = true
#else
    public let serverIsBuiltIn = false
#endif
