/// One fuzz target: a name for `Scripts/fuzz` and a function that feeds one input to a parser.
struct FuzzTarget: Sendable {
    let name: String
    /// What the target feeds, for `Scripts/fuzz --list`.
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Every real target, in the order `Scripts/fuzz all` runs them.
    static let all: [FuzzTarget] = [
        FuzzTarget(
            name: "http1-request", summary: "HTTP/1 request decoder, whole and split",
            run: HTTP1RequestFuzz.run),
        FuzzTarget(
            name: "http1-response", summary: "HTTP/1 response decoder, whole and split",
            run: HTTP1ResponseFuzz.run),
        FuzzTarget(
            name: "http1-chunked", summary: "chunked body decoder behind a fixed request head",
            run: ChunkedBodyFuzz.run),
        FuzzTarget(
            name: "h2-server", summary: "HTTP/2 session, server role, fed client bytes",
            run: HTTP2SessionFuzz.runServer),
        FuzzTarget(
            name: "h2-client", summary: "HTTP/2 session, client role, fed origin bytes",
            run: HTTP2SessionFuzz.runClient),
        FuzzTarget(
            name: "client-hello", summary: "ClientHello peek, whole and on prefixes",
            run: ClientHelloFuzz.run),
        FuzzTarget(
            name: "rules", summary: "JSON5 scenario and auth profile loaders",
            run: RuleFileFuzz.run),
        FuzzTarget(
            name: "contract", summary: "contract loader",
            run: ContractFuzz.run),
        FuzzTarget(
            name: "trace-check", summary: "trace reader and the contract checker behind it",
            run: TraceCheckFuzz.run),
        FuzzTarget(
            name: "har", summary: "HAR importer",
            run: HARFuzz.run),
        FuzzTarget(
            name: "capture", summary: "capture loader (trace or HAR, as `replay` reads a file)",
            run: CaptureFuzz.run),
        FuzzTarget(
            name: "control-api", summary: "control API: HTTP/1 bytes to routed calls",
            run: ControlAPIFuzz.run),
    ]

    /// The deliberately broken target CI runs to prove a crash fails `Scripts/fuzz`; not in `all`.
    static let planted = FuzzTarget(
        name: "planted-crash", summary: "a copy of the request decoder's driver that traps on a seeded pattern",
        run: PlantedCrashFuzz.run)

    static func named(_ name: String) -> FuzzTarget? {
        (all + [planted]).first { $0.name == name }
    }
}
