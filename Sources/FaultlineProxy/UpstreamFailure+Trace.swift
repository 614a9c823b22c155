import FaultlineFlow
import FaultlineHTTP1
import FaultlineTrace

extension UpstreamFailure {
    /// The fields of `upstream.error` for a `CONNECT` that could not reach `endpoint` (HTTP/1.1
    /// and HTTP/2 alike).
    func traceFields(reaching endpoint: UpstreamEndpoint) -> [TraceField] {
        [
            .string("upstream", endpoint.description), .string("code", code), .int("status", Int64(status)),
            .string("message", description),
        ]
    }
}
