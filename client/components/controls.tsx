import type { ButtonHTMLAttributes, ComponentType, CSSProperties, HTMLAttributes, ImgHTMLAttributes, InputHTMLAttributes, OptionHTMLAttributes, SelectHTMLAttributes } from 'react';
import './controls.css';

/**
 * Light stand-ins for the Primer controls of the screens every signed-in page starts with (the shell,
 * the list screen, the pager), with the props of Primer's that those screens use (ADR 024). Primer's own
 * carry what a first load does not need: TextInput brings IconButton, Tooltip and a popover polyfill
 * (~10 KB gzip); Button a live region; Select the TextInput frame. These are plain elements with Primer's
 * tokens in static classes (controls.css): no script of their own, no styles generated per request.
 * Forms and dialogs, loaded on use, keep Primer.
 */

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: 'default' | 'primary' | 'danger' | 'invisible';
  size?: 'small' | 'medium';
  leadingVisual?: ComponentType;
  block?: boolean;
};

export function Button({ variant = 'default', size = 'medium', leadingVisual: Visual, block, type = 'button', children, ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      className="bo-btn"
      data-variant={variant === 'default' ? undefined : variant}
      data-size={size === 'medium' ? undefined : size}
      data-block={block || undefined}
      {...rest}
    >
      {Visual && (
        <span className="bo-btn-visual">
          <Visual />
        </span>
      )}
      <span>{children}</span>
    </button>
  );
}

type Validation = { validationStatus?: 'error' | 'success' };
type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & Validation & { block?: boolean };

export function Select({ block, className, validationStatus, ...rest }: SelectProps) {
  return (
    <select
      className={className ? `bo-select ${className}` : 'bo-select'}
      data-block={block || undefined}
      data-validation={validationStatus}
      aria-invalid={validationStatus === 'error' || undefined}
      {...rest}
    />
  );
}
Select.Option = function Option(props: OptionHTMLAttributes<HTMLOptionElement>) {
  return <option {...props} />;
};

type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'size'> & Validation & { leadingVisual?: ComponentType; block?: boolean; size?: 'small' | 'medium' };

export function TextInput({ leadingVisual: Visual, block, className, style, size, validationStatus, ...rest }: TextInputProps) {
  return (
    <span className={className ? `bo-input ${className}` : 'bo-input'} data-block={block || undefined} data-size={size} data-validation={validationStatus} style={style}>
      {Visual && (
        <span className="bo-input-visual" aria-hidden="true">
          <Visual />
        </span>
      )}
      <input aria-invalid={validationStatus === 'error' || undefined} {...rest} />
    </span>
  );
}

export function Heading({ as: Tag = 'h2', ...rest }: HTMLAttributes<HTMLHeadingElement> & { as?: 'h1' | 'h2' | 'h3' }) {
  return <Tag className="bo-heading" {...rest} />;
}

export function Flash({ variant = 'default', ...rest }: HTMLAttributes<HTMLDivElement> & { variant?: 'default' | 'success' | 'danger' | 'warning' }) {
  return <div className="bo-flash" data-variant={variant} {...rest} />;
}

export type LabelVariant = 'default' | 'secondary' | 'accent' | 'success' | 'attention' | 'severe' | 'danger' | 'done';

export function Label({ variant = 'default', ...rest }: HTMLAttributes<HTMLSpanElement> & { variant?: LabelVariant }) {
  return <span className="bo-label" data-variant={variant} {...rest} />;
}

/** Primer's spinner drawing; `srText` is said to screen readers (none by default: the text beside it says it). */
export function Spinner({ size = 'small', srText = null }: { size?: 'small' | 'medium'; srText?: string | null }) {
  const px = size === 'small' ? 16 : 32;
  return (
    <>
      <svg className="bo-spinner" width={px} height={px} viewBox="0 0 16 16" fill="none" aria-hidden="true">
        <circle cx="8" cy="8" r="7" stroke="currentColor" strokeOpacity="0.25" strokeWidth="2" vectorEffect="non-scaling-stroke" />
        <path d="M15 8a7.002 7.002 0 00-7-7" stroke="currentColor" strokeWidth="2" strokeLinecap="round" vectorEffect="non-scaling-stroke" />
      </svg>
      {srText && <span className="visually-hidden">{srText}</span>}
    </>
  );
}

export function Avatar({ size = 20, square, style, alt = '', ...rest }: ImgHTMLAttributes<HTMLImageElement> & { size?: number; square?: boolean }) {
  return (
    <img
      className="bo-avatar"
      data-square={square || undefined}
      width={size}
      height={size}
      alt={alt}
      style={{ '--avatar-size': `${size}px`, ...style } as CSSProperties}
      {...rest}
    />
  );
}
