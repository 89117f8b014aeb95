package narwhal.engines.vllm;

import narwhal.adapters.kit.AdapterConformanceSuite;
import narwhal.adapters.kit.AdapterUnderTest;

/** The vLLM adapter passes the adapter conformance kit against engine-sim. */
class VllmConformanceTest extends AdapterConformanceSuite {

  @Override
  protected AdapterUnderTest adapter() {
    return new VllmOnEngineSim();
  }
}
