/** A published package and its entry points. */
export interface PublishedPackage {
  readonly name: string;
  readonly dir: string;
  readonly entries: readonly { readonly subpath: string; readonly types: string }[];
}
/** Every published package of the workspace at `root`. */
export function publishedPackages(root?: string): PublishedPackage[];
/** The generated report of each package, the count of public names, and the names with more than one door. */
export function collectApi(root?: string): {
  readonly reports: Map<PublishedPackage, string>;
  readonly names: number;
  readonly multiple: readonly { readonly where: string; readonly doors: readonly string[] }[];
};
