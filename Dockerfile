# Faultline in a container. Build:  docker build -t faultline .
# Run:    docker run --rm -p 8080:8080 -p 9090:9090 -v faultline:/var/lib/faultline faultline
# The default command is a forward proxy on port 8080 with the example rules of Rules/ loaded
# and the control API on port 9090, whose token it prints at start; the CA (and the control
# file) live in the volume, so a restarted container keeps the CA its clients trust.
# The build stage uses the official Swift image; the run stage is Debian slim with the packages
# listed in Scripts/runtime-packages. The Swift runtime is linked statically.
# Scripts/container-check rebuilds this run stage in a chroot, without Docker, and checks it.
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
COPY Scripts/runtime-packages /tmp/runtime-packages
RUN apt-get update && apt-get install -y --no-install-recommends $(sed 's/#.*//' /tmp/runtime-packages) \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages
COPY --from=build /usr/local/bin/faultline /usr/local/bin/faultline
COPY Rules /etc/faultline/rules
ENV FAULTLINE_HOME=/var/lib/faultline
VOLUME ["/var/lib/faultline"]
EXPOSE 8080 9090
ENTRYPOINT ["faultline"]
CMD ["run", "--listen", "0.0.0.0:8080", "--rules", "/etc/faultline/rules", "--control", "0.0.0.0:9090", "--trace", "-"]
