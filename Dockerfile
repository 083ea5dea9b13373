# Multi-stage build: a static binary in a minimal image, run as a non-root user.
#   docker build -t podium .
#   docker run -p 8080:8080 -e REDIS_URL=redis://redis:6379/0 podium
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/web ./cmd/web

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/web /web
USER nonroot:nonroot
EXPOSE 8080
ENV ADDR=:8080
ENTRYPOINT ["/web"]
