import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference backend's job pipeline as an app drives it: `POST /jobs` makes a job, each
/// step is a `POST /jobs/{id}/STEP`.
struct Jobs: Sendable {
    let baseURL: URL
    let session: URLSession

    init(baseURL: URL, session: URLSession? = nil) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        self.session = session ?? URLSession(configuration: configuration)
    }

    /// A new job's id.
    func create() async throws -> String {
        let (body, _) = try await session.data(for: post("jobs"))
        guard let json = try JSONSerialization.jsonObject(with: body) as? [String: Any], let id = json["job"] else {
            throw Client.Failure(description: "POST /jobs answered \(String(decoding: body, as: UTF8.self))")
        }
        return "\(id)"
    }

    /// `POST /jobs/{id}/{step}`; returns the status.
    func run(_ step: String, job: String) async throws -> Int {
        let (_, response) = try await session.data(for: post("jobs/\(job)/\(step)"))
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func post(_ path: String) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        return request
    }
}
