package narwhal.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's HTTP endpoints: generation under {@code /v1/}, {@code /health}, {@code
 * /metrics}, {@code /v1/models}, the attestation document and the {@code /admin/} fault controls.
 * With an API key set, {@link ApiKeyGuard} answers unauthorized {@code /v1} requests first.
 *
 * <p>Requests on a connection are answered one at a time, in order: a request that arrives while
 * a response is in progress (HTTP pipelining) waits in a queue. Confined to the channel's event
 * loop; each request buffer is released as soon as it has been read.
 */
final class SimHttpHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(SimHttpHandler.class);
  private static final String ENGINE_DEAD_MESSAGE =
      "EngineCore encountered an issue. See stack trace (above) for the root cause.";

  private final SimulatedEngineState engine;
  private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
  private boolean busy;
  private boolean closed;
  private @Nullable Generation generation;
  private @Nullable ScheduledFuture<?> delayedStart;
  private @Nullable BootstrapEndpoint bootstrapPoll;

  SimHttpHandler(SimulatedEngineState engine) {
    this.engine = engine;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    engine.stats.connectionOpened();
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closed = true;
    engine.stats.connectionClosed();
    if (delayedStart != null && delayedStart.cancel(false)) {
      engine.stats.waitingChanged(-1);
    }
    delayedStart = null;
    if (bootstrapPoll != null) {
      bootstrapPoll.cancel();
      bootstrapPoll = null;
    }
    if (generation != null) {
      generation.clientGone();
      generation = null;
    }
    FullHttpRequest queued;
    while ((queued = pipelined.poll()) != null) {
      queued.release();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (generation != null) {
      generation.writabilityChanged();
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("closing connection after error", cause);
    ctx.close();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    FullHttpRequest request = (FullHttpRequest) msg;
    if (busy || closed) {
      if (closed) {
        request.release();
      } else {
        pipelined.add(request);
      }
      return;
    }
    handleAndRelease(ctx, request);
  }

  private void handleAndRelease(ChannelHandlerContext ctx, FullHttpRequest request) {
    busy = true;
    try {
      handle(ctx, request);
    } finally {
      request.release();
    }
  }

  private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (request.decoderResult().isFailure()) {
      send(ctx, errorResponse(ctx, 400, "Malformed HTTP request.", null), false);
      return;
    }
    String path = new QueryStringDecoder(request.uri()).path();
    HttpMethod method = request.method();
    JsonBody body = JsonBody.NONE;
    if (path.startsWith("/v1/")) {
      body = readJson(request);
      engine.received.add(
          new ReceivedRequest(method.name(), path, lowerCasedHeaders(request), body.node()));
    }
    // After recording: a test can see what a refused request carried. Before routing, as vLLM's
    // middleware answers before any handler (a refused request is not counted as received).
    if (!engine.apiKey.admits(method, path, request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
      send(ctx, ApiKeyGuard.unauthorized(ctx.alloc()), keepAlive);
      return;
    }
    if (path.startsWith(BootstrapEndpoint.ROOMS)) {
      if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
        pollRoom(ctx, request.uri(), keepAlive);
      }
      return;
    }
    switch (path) {
      case "/health":
        if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
          send(ctx, HttpResponses.empty(engine.faults().isDead() ? 503 : 200), keepAlive);
        }
        break;
      case "/metrics":
        if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
          String text = MetricsText.render(engine.options, engine.stats, engine.gpu == null ? null : engine.gpu.load());
          send(ctx, HttpResponses.text(ctx.alloc(), 200, MetricsText.CONTENT_TYPE, text), keepAlive);
        }
        break;
      case "/v1/models":
        if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
          send(ctx, deadOr(ctx, () -> ModelList.body(engine.options)), keepAlive);
        }
        break;
      case Attestation.PATH:
        // The sidecar answers whatever the engine's health: attestation describes the build.
        if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
          send(ctx, HttpResponses.json(ctx.alloc(), 200, Attestation.body(engine.options, engine.processGeneration)), keepAlive);
        }
        break;
      case TokenizeEndpoint.PATH:
        send(ctx, TokenizeEndpoint.answer(ctx.alloc(), engine, method, request), keepAlive);
        break;
      case "/admin/faults":
        send(ctx, AdminEndpoints.faults(ctx.alloc(), engine, method, request), keepAlive);
        break;
      case "/admin/framing":
        send(ctx, AdminEndpoints.framing(ctx.alloc(), engine, method, request), keepAlive);
        break;
      case KvReleaseEndpoint.PATH:
        send(ctx, KvReleaseEndpoint.handle(ctx.alloc(), engine, method, request), keepAlive);
        break;
      case "/admin/cache/reset":
        // Gpu timing with a prefix cache: empties it (vLLM's reset_prefix_cache), answered once the
        // step loop has; {"reset": false} while sequences hold blocks, or without a prefix cache.
        if (requireMethod(ctx, method, HttpMethod.POST, keepAlive)) {
          if (engine.gpu == null) {
            send(ctx, HttpResponses.json(ctx.alloc(), 200, SimJson.object().put("reset", false)), keepAlive);
          } else {
            engine.gpu.resetPrefixCache().whenComplete((ok, e) -> ctx.executor().execute(() -> send(ctx,
                HttpResponses.json(ctx.alloc(), 200, SimJson.object().put("reset", e == null && ok)), keepAlive)));
          }
        }
        break;
      case "/admin/stats":
        if (requireMethod(ctx, method, HttpMethod.GET, keepAlive)) {
          send(ctx, AdminEndpoints.stats(ctx.alloc(), engine.stats), keepAlive);
        }
        break;
      case "/v1/completions":
      case "/v1/chat/completions":
        if (requireMethod(ctx, method, HttpMethod.POST, keepAlive)) {
          GenerationEndpoint endpoint = path.equals("/v1/completions") ? GenerationEndpoint.COMPLETIONS : GenerationEndpoint.CHAT;
          generate(ctx, endpoint, request, body, keepAlive);
        }
        break;
      default:
        send(ctx, detail(ctx, 404, "Not Found"), keepAlive);
        break;
    }
  }

  private void generate(
      ChannelHandlerContext ctx,
      GenerationEndpoint endpoint,
      FullHttpRequest httpRequest,
      JsonBody body,
      boolean keepAlive) {
    SimRequest request;
    try {
      if (body.error() != null) {
        throw SimHttpException.badRequest("JSON decode error: " + body.error());
      }
      if (body.node() == null) {
        throw SimHttpException.badRequest("A JSON request body is required.");
      }
      request =
          engine.parser.parse(
              endpoint, body.node(), httpRequest.headers().get("x-request-id"));
    } catch (SimHttpException e) {
      engine.stats.requestReceived();
      FullHttpResponse response =
          engine.faults().isDead()
              ? errorResponse(ctx, 503, ENGINE_DEAD_MESSAGE, null)
              : errorResponse(ctx, e.status(), e.getMessage(), e.param());
      send(ctx, response, keepAlive);
      return;
    }
    engine.stats.requestReceived(request.remoteDecode() || request.bootstrapPrefill(), request.kvPull());
    RequestFaults faults = engine.faults().resolve(request.phase(), request.directives());
    if (faults.dead) {
      send(ctx, errorResponse(ctx, 503, ENGINE_DEAD_MESSAGE, null), keepAlive);
      return;
    }
    if (faults.refuse) {
      ctx.close();
      return;
    }
    if (faults.delayHeadersMillis > 0) {
      engine.stats.waitingChanged(1);
      delayedStart =
          ctx.executor()
              .schedule(
                  () -> {
                    delayedStart = null;
                    engine.stats.waitingChanged(-1);
                    begin(ctx, request, faults, keepAlive);
                  },
                  faults.delayHeadersMillis,
                  TimeUnit.MILLISECONDS);
      return;
    }
    begin(ctx, request, faults, keepAlive);
  }

  private void begin(
      ChannelHandlerContext ctx, SimRequest request, RequestFaults faults, boolean keepAlive) {
    if (closed) {
      return;
    }
    if (faults.status != 0) {
      String message =
          faults.statusMessage != null
              ? faults.statusMessage
              : ErrorBodies.defaultMessage(faults.status);
      send(ctx, errorResponse(ctx, faults.status, message, null), keepAlive);
      return;
    }
    Generation started =
        new Generation(
            ctx, engine, request, faults, keepAlive, (last, keep) -> responseComplete(ctx, last, keep));
    generation = started;
    started.start();
  }

  /** A decode engine's long poll of a bootstrap room; answered when the room is decided. */
  private void pollRoom(ChannelHandlerContext ctx, String uri, boolean keepAlive) {
    if (engine.faults().isDead()) {
      send(ctx, errorResponse(ctx, 503, ENGINE_DEAD_MESSAGE, null), keepAlive);
      return;
    }
    bootstrapPoll = BootstrapEndpoint.start(ctx, engine, uri, response -> {
      bootstrapPoll = null;
      if (closed) {
        response.release();
        return;
      }
      send(ctx, response, keepAlive);
    });
  }

  private boolean requireMethod(
      ChannelHandlerContext ctx, HttpMethod actual, HttpMethod expected, boolean keepAlive) {
    if (actual.equals(expected)) {
      return true;
    }
    send(ctx, detail(ctx, 405, "Method Not Allowed"), keepAlive);
    return false;
  }

  private FullHttpResponse deadOr(ChannelHandlerContext ctx, Supplier<ObjectNode> body) {
    return engine.faults().isDead()
        ? errorResponse(ctx, 503, ENGINE_DEAD_MESSAGE, null)
        : HttpResponses.json(ctx.alloc(), 200, body.get());
  }

  private void send(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
    HttpUtil.setKeepAlive(response, keepAlive);
    responseComplete(ctx, ctx.writeAndFlush(response), keepAlive);
  }

  /** The current response is fully written: close, or serve the next pipelined request. */
  private void responseComplete(ChannelHandlerContext ctx, ChannelFuture lastWrite, boolean keepAlive) {
    generation = null;
    if (!keepAlive) {
      lastWrite.addListener(ChannelFutureListener.CLOSE);
      return;
    }
    busy = false;
    FullHttpRequest next;
    while (!busy && !closed && (next = pipelined.poll()) != null) {
      handleAndRelease(ctx, next);
    }
  }

  private FullHttpResponse errorResponse(
      ChannelHandlerContext ctx, int status, String message, @Nullable String param) {
    return HttpResponses.json(
        ctx.alloc(), status, ErrorBodies.envelope(engine.options.dialect(), status, message, param));
  }

  /** FastAPI's own error shape for routing errors: {@code {"detail": "..."}}. */
  private static FullHttpResponse detail(ChannelHandlerContext ctx, int status, String detail) {
    ObjectNode body = SimJson.object();
    body.put("detail", detail);
    return HttpResponses.json(ctx.alloc(), status, body);
  }

  private static Map<String, String> lowerCasedHeaders(FullHttpRequest request) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, String> header : request.headers()) {
      headers.merge(
          header.getKey().toLowerCase(Locale.ROOT), header.getValue(), (a, b) -> a + ", " + b);
    }
    return headers;
  }

  private static JsonBody readJson(FullHttpRequest request) {
    if (!request.content().isReadable()) {
      return JsonBody.NONE;
    }
    try (ByteBufInputStream in = new ByteBufInputStream(request.content().duplicate())) {
      JsonNode node = SimJson.MAPPER.readTree((InputStream) in);
      return node == null || node.isMissingNode() ? JsonBody.NONE : new JsonBody(node, null);
    } catch (JsonProcessingException e) {
      return new JsonBody(null, e.getOriginalMessage());
    } catch (IOException e) {
      return new JsonBody(null, e.getMessage());
    }
  }

  /** A request body read as JSON: the tree, or why it is not JSON, or neither when empty. */
  private record JsonBody(@Nullable JsonNode node, @Nullable String error) {
    static final JsonBody NONE = new JsonBody(null, null);
  }
}
