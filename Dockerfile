# Faultline in a container. Build:  docker build -t faultline .
# Run:    docker run --rm -p 8080:8080 faultline            (forward proxy on port 8080)
# The build stage uses the official Swift image; the run stage is Debian slim with the two C
# libraries Faultline links (OpenSSL 3 and nghttp2). The Swift runtime is linked statically.
ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev libnghttp2-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product faultline --static-swift-stdlib \
    && cp "$(swift build -c release --show-bin-path)/faultline" /usr/local/bin/faultline

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libssl3 libnghttp2-14 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/faultline /usr/local/bin/faultline
COPY Rules /etc/faultline/rules
EXPOSE 8080
ENTRYPOINT ["faultline"]
CMD ["run", "--listen", "0.0.0.0:8080", "--trace", "-"]
