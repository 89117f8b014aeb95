package narwhal.adapters.kit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import narwhal.config.EngineSpec;

/** Variations of the adapter's engine specs that some checks need. */
final class EngineSpecs {

  private EngineSpecs() {}

  /** A loopback URL nothing listens on (a port that was free a moment ago). */
  static URI closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + s.getLocalPort());
    }
  }

  static EngineSpec withUrl(EngineSpec e, URI url) {
    return new EngineSpec(e.iid(), url, e.role(), e.attestationUrl(), e.pin(), e.sharedDevice(), e.dialect(),
        e.connector(), e.dialectOptions());
  }

  static EngineSpec withConnector(EngineSpec e, String connector) {
    return new EngineSpec(e.iid(), e.url(), e.role(), e.attestationUrl(), e.pin(), e.sharedDevice(), e.dialect(),
        connector, e.dialectOptions());
  }
}
