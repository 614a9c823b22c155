import FaultlineContract
import FaultlineTrace

/// The trace reader (`faultline check`, `replay`, the testing library) and the contract checker
/// behind it: a trace that reads is checked against the default contract, and the report is
/// formatted as `faultline check` prints it.
enum TraceCheckFuzz {
    /// A trace for targets that need one that reads (the contract target).
    static let smallTrace = """
        {"faultline_trace":1,"created":"2026-12-01T10:00:00Z","version":"fuzz"}
        {"seq":1,"wall":"2026-12-01T10:00:00.000001Z","mono_ns":1000,"event":"request.received","conn":1,"flow":1,"method":"POST","url":"http://127.0.0.1:9000/oauth/token","host":"127.0.0.1","port":9000,"path":"/oauth/token","version":"HTTP/1.1","headers":[["Host","127.0.0.1:9000"]],"role":"login","lineage":"L1"}
        {"seq":2,"wall":"2026-12-01T10:00:00.000002Z","mono_ns":2000,"event":"request.forwarded","conn":1,"flow":1,"upstream_conn":2,"reused":false,"body_length":0}
        {"seq":3,"wall":"2026-12-01T10:00:00.000003Z","mono_ns":3000,"event":"response.received","conn":1,"flow":1,"status":200,"headers":[["Content-Type","application/json"]]}
        {"seq":4,"wall":"2026-12-01T10:00:00.000004Z","mono_ns":4000,"event":"response.delivered","conn":1,"flow":1,"status":200,"body_length":10}
        {"seq":5,"wall":"2026-12-01T10:00:00.000005Z","mono_ns":5000,"event":"request.received","conn":1,"flow":2,"method":"GET","url":"http://127.0.0.1:9000/me","host":"127.0.0.1","port":9000,"path":"/me","version":"HTTP/1.1","headers":[["Authorization","Bearer fp:0011223344556677"]],"role":"business","lineage":"L1","credentials":["access=fp:0011223344556677"]}
        {"seq":6,"wall":"2026-12-01T10:00:00.000006Z","mono_ns":6000,"event":"response.delivered","conn":1,"flow":2,"status":401,"body_length":0}

        """

    static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        guard let trace = try? TraceReader.read(text) else { return }
        let report = ContractChecker.check(trace)
        _ = ReportFormatter.text(report, traceName: "fuzz.trace")
        _ = ReportFormatter.json(report)
    }
}
