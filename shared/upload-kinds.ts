/** §9 upload kinds: what an uploaded file is for (a leaf module: entity definitions name them without importing the upload rules). */
export const UPLOAD_KINDS = ['company_logo', 'user_profile_picture', 'bicycle', 'service_image', 'service_detail_image', 'event_logo'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];
