extension HTTPResponseHead {
    /// Whether the server keeps the connection open after this response (RFC 9112 §9.3): an
    /// HTTP/1.1 response unless it says `Connection: close`, an HTTP/1.0 one only when it says
    /// `Connection: keep-alive`. (Whether the framing allows another message is the decoder's
    /// business: a close-delimited body ends the connection whatever this says.)
    public var keepsConnectionOpen: Bool {
        version == .http1_1
            ? !headers.containsToken("close", inField: "connection")
            : headers.containsToken("keep-alive", inField: "connection")
    }
}
