package narwhal.engine.http;

import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.SocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A NIO socket channel whose connect stays pending forever, as if the engine's host dropped every
 * SYN. Netty's own connect timer then fires, so the connect-timeout path runs for real without a
 * black-hole address (which behaves differently from one network to the next).
 */
public final class NeverConnectingChannel extends NioSocketChannel {

  /** Every instance made, so a test can see whether a pending connect's socket was closed. */
  static final Queue<NeverConnectingChannel> CREATED = new ConcurrentLinkedQueue<>();

  public NeverConnectingChannel() {
    CREATED.add(this);
  }

  @Override
  protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress) {
    return false; // pending, and no OP_CONNECT interest: only the timeout can end it
  }
}
