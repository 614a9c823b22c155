import CNghttp2

/// Header fields as the `nghttp2_nv` array the submit functions read. nghttp2 copies names and
/// values during the call (we never pass `NGHTTP2_NV_FLAG_NO_COPY_*`), so the storage only has
/// to live for the closure.
enum NameValueList {
    /// Calls `body` with `headers` as `nghttp2_nv`s (nil and 0 for none).
    static func with<Result>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        guard !headers.isEmpty else { return body(nil, 0) }
        var storage: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>, flags: UInt8)] = []
        spans.reserveCapacity(headers.count)
        for header in headers {
            let nameStart = storage.count
            storage.append(contentsOf: header.name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: header.valueBytes)
            let flags = header.neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
            spans.append((nameStart..<valueStart, valueStart..<storage.count, UInt8(flags.rawValue)))
        }
        storage.append(0)  // never empty, so the buffer has a base address
        return storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let list = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count, flags: span.flags)
            }
            return list.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
    }
}
