# Multi-stage build: a static binary in a minimal image, run as a non-root user.
#   docker build -t podium .
#   docker run -p 8080:8080 -e REDIS_URL=redis://redis:6379/0 podium
FROM docker.io/library/golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/web ./cmd/web && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/web /web
# The embedded SQLite archive of closed periods, when DATABASE_URL is unset:
# mount a volume here to keep it.
COPY --from=build --chown=nonroot:nonroot /out/data /data
VOLUME /data
USER nonroot:nonroot
EXPOSE 8080
ENV ADDR=:8080 ARCHIVE_PATH=/data/archive.db
ENTRYPOINT ["/web"]
