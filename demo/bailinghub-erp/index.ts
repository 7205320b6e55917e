/** A business system built for BailingHub's published formats (see server.ts and tools.ts). */
export {
  startBailingHubErp,
  ERP_PREFIX,
  ERP_SPEC_PATH,
  type ErpHandle,
  type ErpRequest,
  type ErpWrite,
} from './server.js';
export { buildErpSpec, ERP_TOOLS, type ToolDef } from './tools.js';
