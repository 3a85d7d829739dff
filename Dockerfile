# syntax=docker/dockerfile:1
# AI-Meeting Go: one static binary on Debian with the local speech (PocketSphinx)
# and TTS (espeak-ng, lame) engines, and OCR for scanned resumes (tesseract,
# poppler-utils; the corpus producers of scripts/ocr-deps.sh are test-only).
# Build: docker build -t aimeeting .
# Run: docker run -p 8080:8080 -v aimeeting-data:/data aimeeting

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, so a source change does not refetch modules.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# No cgo: internal/speech/pocketsphinx loads libpocketsphinx at run time (purego).
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/aimeeting ./cmd/server

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates tzdata espeak-ng pocketsphinx pocketsphinx-en-us lame \
       poppler-utils tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin aimeeting \
    && mkdir -p /data && chown aimeeting:aimeeting /data
COPY --from=build /out/aimeeting /usr/local/bin/aimeeting
ENV DATA_DIR=/data \
    SERVER_PORT=8080 \
    LOG_FORMAT=json
WORKDIR /data
VOLUME ["/data"]
USER aimeeting
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["/usr/local/bin/aimeeting", "--healthcheck", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/aimeeting"]
