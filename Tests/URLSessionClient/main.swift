// faultline-urlsession-client: fetches each URL given on the command line with Foundation's
// URLSession and prints one line per URL, `STATUS SHA256-OF-BODY URL`, so the integration tests
// can drive Faultline with the HTTP stack iOS apps use. Exits 1 on the first transport error.
// With `--token-check` it is instead an app that decodes the JWT of a token answer and judges
// its `exp`/`nbf` by its own clock (TokenCheck.swift).
//
// On Linux, URLSession ignores `connectionProxyDictionary`; libcurl underneath honours the
// lowercase `http_proxy` environment variable, which is how the tests route it through the
// forward listener.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let urls = CommandLine.arguments.dropFirst()
guard !urls.isEmpty else {
    FileHandle.standardError.write(Data("usage: faultline-urlsession-client URL...\n".utf8))
    exit(2)
}

let configuration = URLSessionConfiguration.ephemeral
configuration.timeoutIntervalForRequest = 10
configuration.timeoutIntervalForResource = 10
let session = URLSession(configuration: configuration)

if urls.first == "--token-check" {
    guard let options = TokenCheck.parse(Array(urls.dropFirst())) else {
        FileHandle.standardError.write(Data(TokenCheck.usage.utf8))
        exit(2)
    }
    let status = await TokenCheck.run(options, session: session)
    session.finishTasksAndInvalidate()
    exit(status)
}

for text in urls {
    guard let url = URL(string: text) else {
        FileHandle.standardError.write(Data("not a URL: \(text)\n".utf8))
        exit(1)
    }
    do {
        let (body, response) = try await session.data(from: url)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        print("\(status) \(SHA256.hexDigest(of: body)) \(text)")
    } catch {
        FileHandle.standardError.write(Data("\(text): \(error)\n".utf8))
        exit(1)
    }
}
session.finishTasksAndInvalidate()
exit(0)
