package narwhal.sim;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a gpu-mode producer that a decode is done with the KV it leased (pulled it, or gave up
 * before pulling): one {@code POST} to its {@link KvReleaseEndpoint}, fire and forget, as NIXL's
 * notification is. A producer that cannot be reached keeps the KV until its lease expires, which is
 * what a lost notification costs a real one too. Runs on the caller's event loop.
 */
final class KvReleaseClient {
  private static final Logger log = LoggerFactory.getLogger(KvReleaseClient.class);
  /** Longest a notification may take before its connection is dropped. */
  private static final long TIMEOUT_MILLIS = 10_000;

  private KvReleaseClient() {}

  static void send(EventLoop loop, ProducerKv producer) {
    URI uri;
    try {
      uri = URI.create(producer.releaseUrl());
    } catch (IllegalArgumentException e) {
      log.debug("not a release URL: {}", producer.releaseUrl());
      return;
    }
    String host = uri.getHost();
    int port = uri.getPort() == -1 ? 80 : uri.getPort();
    if (host == null) {
      log.debug("release URL without a host: {}", producer.releaseUrl());
      return;
    }
    String body = SimJson.object().put("remote_request_id", producer.remoteRequestId()).toString();
    Bootstrap bootstrap = new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) TIMEOUT_MILLIS)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast(new HttpClientCodec())
                .addLast(new HttpObjectAggregator(64 * 1024))
                .addLast(new SimpleChannelInboundHandler<FullHttpResponse>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
                    ctx.close();
                  }

                  @Override
                  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    log.debug("KV release to {} failed", producer.releaseUrl(), cause);
                    ctx.close();
                  }
                });
          }
        });
    bootstrap.connect(InetSocketAddress.createUnresolved(host, port)).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        log.debug("KV release: cannot reach {}", producer.releaseUrl(), f.cause());
        return;
      }
      Channel channel = f.channel();
      ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
      String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
      DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path, content);
      request.headers()
          .set(HttpHeaderNames.HOST, uri.getRawAuthority())
          .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
          .set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
          .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      channel.writeAndFlush(request);
      var deadline = loop.schedule(() -> {
        channel.close();
      }, TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      channel.closeFuture().addListener(closed -> deadline.cancel(false));
    });
  }
}
