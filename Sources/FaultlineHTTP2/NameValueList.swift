import CNghttp2

/// Header fields as the `nghttp2_nv` array the submit functions read. nghttp2 copies names and
/// values during the call (we never pass `NGHTTP2_NV_FLAG_NO_COPY_*`), so the storage only has
/// to live for the closure.
enum NameValueList {
    /// Calls `body` with `headers` as `nghttp2_nv`s (nil and 0 for none).
    ///
    /// Names and values are copied into one buffer and the list into another, both temporary
    /// allocations (on the stack when they are small, as a response head's are): a response head
    /// used to cost an array per value plus three more.
    static func with<Result>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        guard !headers.isEmpty else { return body(nil, 0) }
        let byteCount = headers.reduce(0) { $0 + $1.name.utf8.count + $1.valueByteCount }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(byteCount, 1)) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: headers.count) { list in
                var offset = 0
                for (index, header) in headers.enumerated() {
                    let name = storage.baseAddress! + offset
                    offset = storage[offset...].initialize(fromContentsOf: header.name.utf8)
                    let value = storage.baseAddress! + offset
                    offset = header.copyValueBytes(into: storage, at: offset)
                    let end = storage.baseAddress! + offset
                    let flags = header.neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
                    list.initializeElement(
                        at: index,
                        to: nghttp2_nv(
                            name: name, value: value, namelen: value - name, valuelen: end - value,
                            flags: UInt8(flags.rawValue)))
                }
                // nghttp2_nv is a plain C struct: nothing to deinitialize.
                return body(UnsafePointer(list.baseAddress), headers.count)
            }
        }
    }
}
