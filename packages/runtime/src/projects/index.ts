/** Projects in the bucket: paths, the store, access, the local file cache. */
export * from './paths';
export * from './project-store';
export * from './project-access';
export * from './file-cache';
export * from './archive';
export * from './staged-uploads';
