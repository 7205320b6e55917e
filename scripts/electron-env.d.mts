export declare const ROOT: string;
export declare function electronBinary(): string | null;
export declare function nativeModulesFit(binary: string): { ok: boolean; why: string | null };
export declare const REBUILD_HINT: string;
