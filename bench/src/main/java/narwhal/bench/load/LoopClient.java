package narwhal.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP/1.1 client of one event loop: a keep-alive pool per target, one request at a time per
 * connection. Everything here runs on that loop, so the pools need no locking; requests issued
 * from the loop complete on it, which keeps a request, its legs and its bookkeeping on one thread.
 */
public final class LoopClient {

  private final EventLoop loop;
  private final Map<HttpTarget, Bootstrap> bootstraps = new HashMap<>();
  private final Map<HttpTarget, ArrayDeque<Channel>> idle = new HashMap<>();
  private final Set<Channel> open = new HashSet<>();

  public LoopClient(EventLoop loop) {
    this.loop = loop;
  }

  public EventLoop loop() {
    return loop;
  }

  /** A request in flight; {@link #abandon} closes its connection (a timeout or a failed check). */
  public static final class Call {
    private @Nullable Channel channel;
    private boolean abandoned;

    public void abandon() {
      abandoned = true;
      Channel ch = channel;
      if (ch != null) {
        ClientHandler handler = ch.pipeline().get(ClientHandler.class);
        if (handler != null) {
          handler.abandon(ch.pipeline().context(handler));
        } else {
          ch.close();
        }
      }
    }
  }

  /** Sends a POST with a JSON body; must be called on this client's loop. */
  public Call post(HttpTarget target, String path, byte[] body, @Nullable String requestId,
      ResponseHandler handler) {
    Call call = new Call();
    Channel pooled = pollIdle(target);
    if (pooled != null) {
      write(call, pooled, target, path, body, requestId, handler);
      return call;
    }
    ChannelFuture connect = bootstrap(target).connect(target.host(), target.port());
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        handler.onFailure("connect_error", target.url() + ": " + f.cause());
        return;
      }
      Channel ch = connect.channel();
      open.add(ch);
      if (call.abandoned) {
        ch.close();
        return;
      }
      write(call, ch, target, path, body, requestId, handler);
    });
    return call;
  }

  private void write(Call call, Channel ch, HttpTarget target, String path, byte[] body,
      @Nullable String requestId, ResponseHandler handler) {
    call.channel = ch;
    ch.pipeline().get(ClientHandler.class).begin(handler);
    FullHttpRequest request = new DefaultFullHttpRequest(
        HttpVersion.HTTP_1_1, HttpMethod.POST, path, Unpooled.wrappedBuffer(body));
    request.headers()
        .set(HttpHeaderNames.HOST, target.hostHeader())
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    if (requestId != null) {
      request.headers().set("X-Request-Id", requestId);
    }
    ch.writeAndFlush(request, ch.voidPromise());
  }

  private @Nullable Channel pollIdle(HttpTarget target) {
    ArrayDeque<Channel> pool = idle.get(target);
    while (pool != null && !pool.isEmpty()) {
      Channel ch = pool.pollLast(); // most recently used first: its buffers are warm
      if (ch.isActive()) {
        return ch;
      }
    }
    return null;
  }

  void release(HttpTarget target, Channel ch) {
    idle.computeIfAbsent(target, t -> new ArrayDeque<>()).addLast(ch);
  }

  void closed(HttpTarget target, Channel ch) {
    open.remove(ch);
    ArrayDeque<Channel> pool = idle.get(target);
    if (pool != null) {
      pool.remove(ch);
    }
  }

  /** Open connections of this loop; call on the loop. */
  public int openConnections() {
    return open.size();
  }

  /** Closes every connection; call on the loop. */
  public void closeAll() {
    List<Channel> all = new ArrayList<>(open);
    idle.clear();
    all.forEach(Channel::close);
  }

  private Bootstrap bootstrap(HttpTarget target) {
    return bootstraps.computeIfAbsent(target, t -> new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpClientCodec()).addLast(new ClientHandler(LoopClient.this, t));
          }
        }));
  }
}
