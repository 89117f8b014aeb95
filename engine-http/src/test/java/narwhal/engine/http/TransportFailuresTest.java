package narwhal.engine.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;
import org.junit.jupiter.api.Test;

/**
 * The classification behind each failure kind. The connect timeout is covered here rather than
 * over a real socket: no local trick makes a connect hang reliably.
 */
class TransportFailuresTest {

  @Test
  void connectTimeout_isConnectTimeout_thoughItIsAConnectException() {
    TransportFailure failure =
        TransportFailures.connectFailure("e:1", new ConnectTimeoutException("connection timed out"));

    assertThat(failure.kind()).isEqualTo(Kind.CONNECT_TIMEOUT);
    assertThat(failure.getCause()).isInstanceOf(ConnectTimeoutException.class);
  }

  @Test
  void refusedUnreachableOrUnknown_isConnectFailed() {
    assertThat(TransportFailures.connectFailure("e:1", new ConnectException("refused")).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
    assertThat(TransportFailures.connectFailure("e:1", new NoRouteToHostException()).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
    assertThat(TransportFailures.connectFailure("e:1", new UnknownHostException("x")).kind())
        .isEqualTo(Kind.CONNECT_FAILED);
  }

  @Test
  void channelErrors_areClassifiedByCause() {
    assertThat(TransportFailures.channelError("e:1", new IOException("Connection reset by peer")).kind())
        .isEqualTo(Kind.CONNECTION_CLOSED);
    assertThat(TransportFailures.channelError("e:1", new PrematureChannelClosureException()).kind())
        .isEqualTo(Kind.CONNECTION_CLOSED);
    assertThat(TransportFailures.channelError("e:1", new DecoderException("bad chunk")).kind())
        .isEqualTo(Kind.PROTOCOL_ERROR);
    assertThat(TransportFailures.channelError("e:1", new TooLongFrameException("header")).kind())
        .isEqualTo(Kind.PROTOCOL_ERROR);
  }
}
